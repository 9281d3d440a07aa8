from django.db import models


class Book(models.Model):
    STATUS = [("draft", "Draft"), ("published", "Published"), ("archived", "Archived")]

    title = models.CharField(max_length=200)
    author = models.CharField(max_length=100)
    status = models.CharField(max_length=20, choices=STATUS, default="draft")
    pages = models.IntegerField(default=0)

    def __str__(self) -> str:
        return self.title
